# Lab guide §4.2: the kubelet injects the Services that exist when a pod starts as variables.
$ kubectl create namespace services
$ kubectl config set-context --current --namespace services
$ kubectl run mysql --image=hub.laoma.cloud/library/mysql --env=MYSQL_ROOT_PASSWORD=redhat --env=MYSQL_USER=tom --env=MYSQL_PASSWORD=redhat --env=MYSQL_DATABASE=blog
$ kubectl expose pod mysql --port=3306 --target-port=3306
$ sleep 20
$ kubectl run test --rm -it --image=busybox sh
$ env | grep MYSQL
$ exit
# WordPress with the variable as its database host: the kubelet expands $(MYSQL_SERVICE_HOST).
$ kubectl run wordpress --image=hub.laoma.cloud/library/wordpress --env=WORDPRESS_DB_USER=tom --env=WORDPRESS_DB_PASSWORD=redhat --env=WORDPRESS_DB_NAME=blog --env=WORDPRESS_DB_HOST='$(MYSQL_SERVICE_HOST)'
$ sleep 30
$ kubectl exec wordpress -- env | grep WORDPRESS_DB_HOST
$ curl -s -o /dev/null -w "%{http_code}\n" $(kubectl get pod wordpress -o jsonpath='{.status.podIP}')
