# Lab guide §4.3: names through CoreDNS, in the same namespace and across namespaces.
$ kubectl create namespace services
$ kubectl config set-context --current --namespace services
$ kubectl run mysql --image=hub.laoma.cloud/library/mysql --env=MYSQL_ROOT_PASSWORD=redhat --env=MYSQL_USER=tom --env=MYSQL_PASSWORD=redhat --env=MYSQL_DATABASE=blog
$ kubectl expose pod mysql --port=3306 --target-port=3306
$ kubectl run wordpress --image=hub.laoma.cloud/library/wordpress --env=WORDPRESS_DB_USER=tom --env=WORDPRESS_DB_PASSWORD=redhat --env=WORDPRESS_DB_NAME=blog --env=WORDPRESS_DB_HOST=mysql
$ kubectl expose pod wordpress --port=80 --target-port=80 --type NodePort
$ sleep 30
$ kubectl run busybox --rm -it --image=busybox /bin/sh
$ cat /etc/resolv.conf
$ wget wordpress:80
$ wget wordpress.services:80
$ wget wordpress.services.svc.cluster.local:80
$ grep title index.html
$ wget -O - wordpress.services.svc.cluster.local:80 | grep title
$ exit
# From another namespace only the longer names resolve.
$ kubectl run busybox -n default --rm -it --image=busybox /bin/sh
$ wget -O - wordpress:80
$ wget -O - wordpress.services:80 | grep title
$ exit
